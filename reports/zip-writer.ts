// A ZIP archive written entry by entry (PKWARE APPNOTE 6.3: local headers, deflated data, the central directory
// and its end record), for Inspect AI's .eval logs: each entry is compressed whole and written at once, so an
// archive of many samples never sits in memory. No ZIP64: an archive past 4 GiB or 65,535 entries is refused.
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { crc32, deflateRawSync } from 'node:zlib';

const LIMIT = 0xffffffff;

interface Written {
  name: Buffer;
  crc: number;
  compressed: number;
  size: number;
  offset: number;
}

/** DOS date and time of `d` (local fields as UTC: the archive says when, not where). */
function dosTime(d: Date): { time: number; date: number } {
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
    date: ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

export class ZipWriter {
  private readonly out: WriteStream;
  private readonly entries: Written[] = [];
  private offset = 0;
  private readonly stamp: { time: number; date: number };

  /** `modified` dates every entry, so the same content makes the same bytes. */
  constructor(file: string, modified: Date) {
    this.out = createWriteStream(file);
    this.stamp = dosTime(modified);
  }

  private async write(b: Buffer): Promise<void> {
    this.offset += b.length;
    if (!this.out.write(b)) await once(this.out, 'drain');
  }

  /** Adds one entry, deflated. */
  async add(name: string, content: string | Buffer): Promise<void> {
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const packed = deflateRawSync(data);
    if (data.length > LIMIT || this.offset + packed.length > LIMIT || this.entries.length === 0xffff)
      throw new Error(`the archive would pass what a ZIP without ZIP64 holds at ${name}`);
    const entry: Written = {
      name: Buffer.from(name, 'utf8'),
      crc: crc32(data),
      compressed: packed.length,
      size: data.length,
      offset: this.offset,
    };
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    this.common(header, 4, entry);
    await this.write(Buffer.concat([header, entry.name]));
    await this.write(packed);
    this.entries.push(entry);
  }

  /** Version needed, flags (UTF-8 names), method (deflate), time, date, CRC, sizes and name length at `at`. */
  private common(b: Buffer, at: number, e: Written): void {
    b.writeUInt16LE(20, at);
    b.writeUInt16LE(0x0800, at + 2);
    b.writeUInt16LE(8, at + 4);
    b.writeUInt16LE(this.stamp.time, at + 6);
    b.writeUInt16LE(this.stamp.date, at + 8);
    b.writeUInt32LE(e.crc, at + 10);
    b.writeUInt32LE(e.compressed, at + 14);
    b.writeUInt32LE(e.size, at + 18);
    b.writeUInt16LE(e.name.length, at + 22);
  }

  /** Writes the central directory and closes the file. */
  async close(): Promise<void> {
    const start = this.offset;
    for (const e of this.entries) {
      const header = Buffer.alloc(46);
      header.writeUInt32LE(0x02014b50, 0);
      header.writeUInt16LE(20, 4); // made by: version 2.0, MS-DOS attributes
      this.common(header, 6, e);
      header.writeUInt32LE(e.offset, 42);
      await this.write(Buffer.concat([header, e.name]));
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.entries.length, 8);
    end.writeUInt16LE(this.entries.length, 10);
    end.writeUInt32LE(this.offset - start, 12);
    end.writeUInt32LE(start, 16);
    await this.write(end);
    this.out.end();
    await once(this.out, 'finish');
  }
}
