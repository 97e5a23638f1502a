// A byte count in words for limit messages: whole GiB when it is one, else MiB.
const MiB = 1024 * 1024;

export const fmtBytes = (n: number): string =>
  n >= 1024 * MiB && n % (1024 * MiB) === 0 ? `${n / (1024 * MiB)} GiB` : `${Math.round(n / MiB)} MiB`;
