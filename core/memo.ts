/**
 * `decide` with its answers for recent arguments kept: for checks of header values (Accept,
 * Content-Type, Host), which every request of a client sends alike, so that each request looks its
 * value up instead of splitting and matching it again. At most `size` answers, oldest out; values
 * longer than `longest` characters are decided every time and not kept, so a client cannot make
 * the table hold much.
 */
export function rememberAnswers<T>(decide: (value: string) => T, size = 64, longest = 256): (value: string) => T {
  const kept = new Map<string, T>();
  return (value) => {
    const known = kept.get(value);
    if (known !== undefined) return known;
    const answer = decide(value);
    if (value.length <= longest && answer !== undefined) {
      if (kept.size >= size) kept.delete(kept.keys().next().value!);
      kept.set(value, answer);
    }
    return answer;
  };
}
