/** Cooperative slicing: `due()` is cheap; `pause()` yields to the event loop (timers and I/O run). */
export function createSlicer(sliceMs: number) {
  let sliceStart = performance.now();
  return {
    due: () => performance.now() - sliceStart >= sliceMs,
    async pause(): Promise<void> {
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
      sliceStart = performance.now();
    },
  };
}
export type Slicer = ReturnType<typeof createSlicer>;
