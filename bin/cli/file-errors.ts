// File errors in words: "permission denied" tells a researcher what to fix, "EACCES" alone does not.
const WORDS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EEXIST: 'already exists',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EIO: 'input/output error',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many levels of symbolic links',
  EMFILE: 'too many open files',
  EBUSY: 'the file is busy',
};

/** An error from a file system call (it carries Node's errno code). */
export function isFileError(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string' && 'syscall' in err;
}

/** What went wrong, in words, with the code in brackets for searching: "permission denied (EACCES)". */
export function describeFileError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string' && Object.hasOwn(WORDS, code)) return `${WORDS[code]} (${code})`;
  return err instanceof Error ? err.message : String(err);
}

/** Errors no other path would fix: the disk, not the name chosen. */
export function isStorageFailure(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'EIO';
}
