/**
 * komodod's GetTime with SetMockTime (utiltime.cpp): the wall clock, or, once `setmocktime` set a
 * time (regtest only), that second until it is set back to 0. The chain store's time rules and the
 * miner's block times read it; other timers (pings, waits) keep the wall clock, as komodod's
 * GetTimeMillis does.
 */
export class NodeClock {
  private mock = 0;

  /** SetMockTime: 0 goes back to the system time. */
  setMockTime(seconds: number): void {
    this.mock = seconds;
  }

  /** GetTime, in seconds. */
  nowSeconds(): number {
    return this.mock !== 0 ? this.mock : Math.floor(Date.now() / 1000);
  }

  /** GetTime in milliseconds, for callers that count in them. */
  nowMs(): number {
    return this.mock !== 0 ? this.mock * 1000 : Date.now();
  }
}
