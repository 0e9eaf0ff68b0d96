/**
 * komodod's flag handling (util.cpp ParseParameters, InterpretNegativeSetting, ReadConfigFile),
 * without I/O: command-line and conf-file flags, and the merged view the daemon reads.
 */

/** A startup problem: a malformed flag value, an unusable setting, an unreadable conf file. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    message: string,
    /** The flag concerned, without its dash, when there is one. */
    readonly flag?: string,
  ) {
    super(message);
  }
}

/** Flag name (no dash) -> values in the order given. */
export type FlagMap = Map<string, string[]>;

function add(map: FlagMap, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** GetBoolArg's reading of a value, strict: "" (bare -flag) is true, an integer is true when non-zero. */
export function boolValue(flag: string, value: string): boolean {
  const v = value.trim();
  if (v === '') return true;
  // komodod's atoi turns "true" or "yes" into 0 (false); acnode refuses them instead.
  if (!/^[+-]?\d+$/.test(v)) throw new ConfigError(`Invalid value for -${flag}: '${value}' (expected 1 or 0)`, flag);
  return BigInt(v) !== 0n;
}

/**
 * -noX means -X=0 (and -noX=0 means -X=1) unless -X itself is set (InterpretNegativeSetting).
 * The -noX entry stays, as in komodod. `negatable` limits this to known flags (komodod also turns
 * -notary=x into a meaningless -tary).
 */
function applyNegations(
  map: FlagMap,
  isSet: (name: string) => boolean,
  set: (name: string, v: string) => void,
  negatable: (name: string) => boolean,
): void {
  for (const [key, values] of [...map]) {
    if (!key.startsWith('no') || key.length <= 2) continue;
    const positive = key.slice(2);
    if (!negatable(positive) || isSet(positive)) continue;
    let negated: boolean;
    try {
      negated = boolValue(key, values[values.length - 1]!);
    } catch {
      throw new ConfigError(`Invalid value for -${key}: '${values[values.length - 1]}' (expected 1 or 0)`, positive);
    }
    set(positive, negated ? '0' : '1');
  }
}

/**
 * ParseParameters: `-name=value`, `-name` (value ""), `--name` as `-name`, repeats kept in order.
 * komodod stops at the first argument that is not a switch and then refuses to start, which is
 * what this does.
 */
export function parseArgv(argv: readonly string[], negatable: (name: string) => boolean = () => true): FlagMap {
  const map: FlagMap = new Map();
  for (const arg of argv) {
    if (!arg.startsWith('-') || arg === '-' || arg === '--')
      throw new ConfigError(
        `Error: There is no RPC client functionality in acnoded ('${arg}' is not a -flag). Use acnode-cli instead.`,
      );
    const eq = arg.indexOf('=');
    let name = eq < 0 ? arg : arg.slice(0, eq);
    const value = eq < 0 ? '' : arg.slice(eq + 1);
    name = name.startsWith('--') ? name.slice(2) : name.slice(1);
    if (name === '') throw new ConfigError(`Invalid flag '${arg}'`);
    add(map, name, value);
  }
  applyNegations(
    map,
    (p) => map.has(p),
    (p, v) => map.set(p, [v]),
    negatable,
  );
  return map;
}

/**
 * A conf file as boost's config_file_iterator reads it: `key=value` lines, `#` starts a comment,
 * blank lines skipped, whitespace around key and value trimmed, `[section]` prefixes keys with
 * "section.". Returns the pairs in file order.
 */
export function parseConfText(text: string, path = 'conf file'): [string, string][] {
  const out: [string, string][] = [];
  let prefix = '';
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const hash = lines[i]!.indexOf('#');
    const line = (hash < 0 ? lines[i]! : lines[i]!.slice(0, hash)).trim();
    if (line === '') continue;
    if (line.startsWith('[') && line.endsWith(']')) {
      const section = line.slice(1, -1).trim();
      prefix = section ? `${section}.` : '';
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0) throw new ConfigError(`Error reading configuration file ${path}: invalid line ${i + 1}: '${lines[i]}'`);
    out.push([prefix + line.slice(0, eq).trim(), line.slice(eq + 1).trim()]);
  }
  return out;
}

/**
 * The command line and the conf file together, read as komodod does: a single-valued flag takes the
 * command line's last value, else the conf file's first; a list flag (addnode, rpcallowip...) has the
 * command line's values followed by the conf file's.
 */
export class Flags {
  readonly cmd: FlagMap;
  readonly conf: FlagMap;

  constructor(cmd: FlagMap, confPairs: readonly [string, string][] = [], negatable: (name: string) => boolean = () => true) {
    this.cmd = cmd;
    this.conf = new Map();
    for (const [k, v] of confPairs) {
      const fresh = !this.cmd.has(k) && !this.conf.has(k);
      add(this.conf, k, v);
      // nofoo=1 in the conf means foo=0 as long as foo is not set yet (ReadConfigFile, util.cpp:754-759).
      if (fresh && k.startsWith('no') && k.length > 2) {
        const positive = k.slice(2);
        if (negatable(positive) && !this.cmd.has(positive) && !this.conf.has(positive)) {
          this.conf.set(positive, [boolValue(k, v) ? '0' : '1']);
        }
      }
    }
  }

  has(name: string): boolean {
    return this.cmd.has(name) || this.conf.has(name);
  }

  /** GetArg: the value in force, or undefined. */
  get(name: string): string | undefined {
    const c = this.cmd.get(name);
    if (c) return c[c.length - 1];
    return this.conf.get(name)?.[0];
  }

  /** mapMultiArgs: every value, command line first. */
  all(name: string): string[] {
    return [...(this.cmd.get(name) ?? []), ...(this.conf.get(name) ?? [])];
  }

  /** Every flag name given anywhere. */
  names(): string[] {
    return [...new Set([...this.cmd.keys(), ...this.conf.keys()])];
  }
}
