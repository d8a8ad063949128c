/**
 * `decide` with its answers for recent arguments kept, for what every request would otherwise work
 * out again from values that repeat: the Accept, Content-Type and Host a client sends alike on
 * every call, the key names of the JSON-RPC envelope. At most `size` answers, oldest out; values
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
