// Just enough multipart/form-data for the donation link form: text fields and one file.
import { HttpError } from './http.ts';

export interface FormFile {
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface Form {
  fields: Map<string, string>;
  files: Map<string, FormFile>;
}

export function parseMultipart(body: Buffer, contentType: string): Form {
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!boundary) throw new HttpError(400, 'Request body must be multipart/form-data with a boundary');
  const form: Form = { fields: new Map(), files: new Map() };
  const delimiter = Buffer.from(`--${boundary}`);
  let start = body.indexOf(delimiter);
  while (start !== -1) {
    const next = body.indexOf(delimiter, start + delimiter.length);
    if (next === -1) break;
    const part = body.subarray(start + delimiter.length + 2, next - 2); // past CRLF, before CRLF
    const split = part.indexOf('\r\n\r\n');
    if (split !== -1) {
      const headers = part.subarray(0, split).toString('utf8');
      const content = part.subarray(split + 4);
      const name = /name="([^"]*)"/i.exec(headers)?.[1];
      const filename = /filename="([^"]*)"/i.exec(headers)?.[1];
      if (name && filename !== undefined) {
        const type = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1] ?? 'application/octet-stream';
        form.files.set(name, { filename, contentType: type.trim(), data: Buffer.from(content) });
      } else if (name) {
        form.fields.set(name, content.toString('utf8'));
      }
    }
    start = next;
  }
  return form;
}
