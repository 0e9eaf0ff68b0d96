/** What acnode-cli touches of the outside world, so tests can run it without a terminal. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** All of standard input (only read under -stdin). */
  readStdin(): Promise<string>;
  homedir?: string;
  cwd?: string;
  sleep?(ms: number): Promise<void>;
  /** Resolves when the user interrupts (`inspect` stops then); default: SIGINT/SIGTERM. */
  interrupted?: Promise<void>;
}
