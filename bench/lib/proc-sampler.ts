// Samples a process's resident memory from /proc/<pid>/status (Linux): VmRSS now, VmHWM the
// kernel's own peak. Elsewhere it records nothing and says so.
import { readFileSync } from 'node:fs';

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
