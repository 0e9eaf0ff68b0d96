/**
 * The CPU time this process has used so far (user and system), in milliseconds. A bound on how long
 * some work may take ("nothing hangs") is checked against it, not the wall clock: a machine loaded by
 * other processes stretches the wall clock, not the CPU time the work needs.
 */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
