// Long-running commands (servers) serve until Ctrl-C or a SIGTERM, then close what they opened.

/** Resolves at the first SIGINT or SIGTERM, and stops listening for both. */
export function untilStopSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
