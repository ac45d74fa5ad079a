/**
 * Streams a CSV file through papaparse in chunks, never holding the file: bytes are capped, decoded as
 * UTF-8 (a BOM is dropped, invalid UTF-8 or NUL bytes mean it is not a text file), and parsed with
 * quoted fields, commas and line breaks inside quotes, LF or CRLF. Each record carries the line it
 * starts on, counting the line breaks inside quoted fields, so reports point at what an editor shows.
 */
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import Papa from "papaparse";
import { DomainError, isDomainError } from "~/lib/domain-error";
import { byteLimit } from "~/services/storage/local.server";

export interface CsvRecord {
  line: number;
  fields: string[];
  /** Set when the record's quotes are malformed (it is reported, not imported). */
  malformed?: string;
}

/**
 * The file cannot be read as CSV at all, so nothing from it is imported: an `invalid` domain error that
 * says so, marked as being about the file (`details.file`).
 */
export function malformedFile(message: string): DomainError {
  return new DomainError("invalid", message, { details: { file: "malformed" } });
}

export function isMalformedFile(error: unknown): error is DomainError {
  return isDomainError(error, "invalid") && error.details.file === "malformed";
}

/**
 * papaparse guesses the line break from its first chunk, which may end between CR and LF; the decoder
 * holds text back until it has seen the first line break and says which one the file uses.
 */
function utf8Decoder(onNewline: (newline: "\r\n" | "\n" | "\r") => void) {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let offset = 0;
  let held: string | null = "";
  const release = (text: string, end: boolean): string => {
    if (held === null) return text;
    held += text;
    const lf = held.indexOf("\n");
    const cr = held.indexOf("\r");
    let newline: "\r\n" | "\n" | "\r" | null = null;
    if (lf >= 0 && (cr < 0 || cr > lf)) newline = "\n";
    else if (cr >= 0 && cr + 1 < held.length) newline = held[cr + 1] === "\n" ? "\r\n" : "\r";
    else if (end) newline = cr >= 0 ? "\r" : "\n";
    if (newline === null) return "";
    onNewline(newline);
    const out = held;
    held = null;
    return out;
  };
  const decode = (chunk?: Buffer) => {
    let text: string;
    try {
      text = chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw malformedFile(`The file is not UTF-8 text (invalid bytes near byte ${offset}).`);
    }
    const nul = text.indexOf("\0");
    if (nul >= 0) throw malformedFile("The file is not a CSV text file (it contains NUL bytes).");
    offset += chunk?.length ?? 0;
    return text;
  };
  return new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _encoding, callback) {
      try {
        const text = release(decode(chunk), false);
        callback(null, text.length > 0 ? text : undefined);
      } catch (error) {
        callback(error as Error);
      }
    },
    flush(callback) {
      try {
        const text = release(decode(), true);
        callback(null, text.length > 0 ? text : undefined);
      } catch (error) {
        callback(error as Error);
      }
    },
  });
}

const LINE_BREAKS = /\r\n|\r|\n/g;

function breaksIn(fields: string[]): number {
  let count = 0;
  for (const field of fields) {
    if (field.length > 1 && (field.includes("\n") || field.includes("\r"))) count += field.match(LINE_BREAKS)!.length;
    else if (field === "\n" || field === "\r") count += 1;
  }
  return count;
}

/**
 * Reads `input` to the end, calling `onRecords` with each chunk's records (empty lines left out) and
 * waiting for it before reading on. Rejects with `malformedFile` when the file is not CSV text or a
 * quoted field never ends, and with a `too_large` domain error past `maxBytes`.
 */
export async function readCsv(
  input: Readable,
  { maxBytes, onRecords }: { maxBytes: number; onRecords: (records: CsvRecord[]) => Promise<void> },
): Promise<{ bytes: number }> {
  const counted = { bytes: 0 };
  let detected: (newline: "\r\n" | "\n" | "\r") => void = () => {};
  const newline = new Promise<"\r\n" | "\n" | "\r">((resolve) => (detected = resolve));
  const decoder = utf8Decoder((value) => detected(value));
  const feeding = pipeline(input, byteLimit(maxBytes, counted), decoder);
  let nextLine = 1;

  const parseDecoded = (lineBreak: "\r\n" | "\n" | "\r") =>
    new Promise<void>((resolve, reject) => {
      let failed = false;
      const fail = (error: unknown) => {
        if (failed) return;
        failed = true;
        reject(error);
      };
      Papa.parse<string[]>(decoder as unknown as File, {
        delimiter: ",",
        newline: lineBreak,
        header: false,
        skipEmptyLines: false,
        chunk(results, parser) {
          if (failed) return;
          parser.pause();
          const records: CsvRecord[] = [];
          const lines: number[] = [];
          for (const fields of results.data) {
            lines.push(nextLine);
            const isEmpty = fields.length === 1 && fields[0] === "";
            if (!isEmpty) records.push({ line: nextLine, fields });
            nextLine += 1 + breaksIn(fields);
          }
          for (const error of results.errors) {
            const line = lines[error.row ?? lines.length - 1] ?? nextLine;
            if (error.code === "MissingQuotes") {
              fail(malformedFile(`A quoted field starting on line ${line} is never closed.`));
              parser.abort();
              return;
            }
            const record = records.find((candidate) => candidate.line === line);
            if (record) record.malformed = error.message;
          }
          onRecords(records).then(
            () => parser.resume(),
            (error) => {
              fail(error);
              parser.abort();
            },
          );
        },
        complete: () => {
          if (!failed) resolve();
        },
        error: (error: Error) => fail(error),
      });
    });

  const parsing = (async () => {
    // An empty or failing file never says; the pipeline's outcome then settles this read.
    const found = await Promise.race([newline, feeding.then(() => null)]);
    if (found === null) return;
    await parseDecoded(found);
  })();

  try {
    await Promise.all([feeding, parsing]);
  } catch (error) {
    input.destroy();
    throw error;
  }
  return { bytes: counted.bytes };
}
