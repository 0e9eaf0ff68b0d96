/**
 * A chain parameter that komodod would refuse (or that acnode cannot honour). `flag` names the
 * command-line flag without its dash, so the caller can say which one is wrong.
 */
export class ParamsError extends Error {
  override readonly name = 'ParamsError';
  constructor(
    readonly flag: string,
    message: string,
  ) {
    // Say which flag, unless komodod's message already does.
    super(message.includes(`-${flag}`) || message.includes(flag.toUpperCase()) ? message : `-${flag}: ${message}`);
  }
}
