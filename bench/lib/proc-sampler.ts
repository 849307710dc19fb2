// Samples a process's resident memory from /proc/<pid>/status (Linux): VmRSS now, VmHWM the
// kernel's own peak; and its CPU time from /proc/<pid>/stat. Elsewhere it records nothing and says so.
import { readdirSync, readFileSync } from 'node:fs';

export interface MemorySample {
  /** Epoch ms. */
  t: number;
  rssKb: number;
  hwmKb: number;
}

export interface ProcessSampler {
  samples: MemorySample[];
  /** Takes one last sample and stops. */
  stop(): MemorySample[];
}

export function readMemory(pid: number): MemorySample | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { t: Date.now(), rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
}

export function sampleProcess(pid: number, intervalMs = 250): ProcessSampler {
  const samples: MemorySample[] = [];
  const take = () => {
    const s = readMemory(pid);
    if (s) samples.push(s);
  };
  take();
  const timer = setInterval(take, intervalMs);
  timer.unref();
  return {
    samples,
    stop() {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

/** Highest VmRSS among samples taken within [from, to). */
export function peakRss(samples: MemorySample[], from = 0, to = Number.POSITIVE_INFINITY): number {
  let peak = Number.NaN;
  for (const s of samples) if (s.t >= from && s.t < to && !(s.rssKb <= peak)) peak = s.rssKb;
  return peak;
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat; NaN elsewhere. */
export function readCpuSeconds(pid: number): number {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return Number.NaN;
  }
  // Fields after the command name (which may hold spaces) start at its closing parenthesis.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line (11 and 12 here), in clock ticks (USER_HZ, 100 on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Pids of this process's children whose command name starts with `prefix` (Linux; [] elsewhere). */
export function childPids(prefix: string, parent = process.pid): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const e of entries) {
    try {
      const text = readFileSync(`/proc/${e}/stat`, 'utf8');
      const comm = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
      const ppid = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && comm.startsWith(prefix)) found.push(Number(e));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}
