// What every screen shares: the page title, an error said aloud, a field with its label and
// error, and an action that says what it did (or what went wrong). (A file input: files.tsx.)
import { h, Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ServiceError } from '../../contract/answer.ts';

export function useTitle(title: string): void {
  useEffect(() => void (document.title = `${title} · Dashboard`), [title]);
}

/** For the merchant: the service's own words when it refused; else the error's (which names the call). */
export const messageOf = (error: unknown): string =>
  (error as ServiceError | undefined)?.said ?? (error instanceof Error ? error.message : 'Something went wrong');
export const fieldError = (error: unknown, field: string): string | undefined =>
  error instanceof ServiceError ? error.fields.find((f) => f.field === field)?.message : undefined;

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {messageOf(error)}
    </p>
  );
}

export function Field(props: {
  id: string;
  label: string;
  type?: string;
  value: string;
  onInput: (value: string) => void;
  autocomplete?: string;
  error?: string;
  hint?: string;
  required?: boolean;
}) {
  const described = [props.hint && `${props.id}-hint`, props.error && `${props.id}-error`].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.hint && (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      )}
      <input
        id={props.id}
        type={props.type ?? 'text'}
        value={props.value}
        autocomplete={props.autocomplete}
        required={props.required}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={described}
        onInput={(e) => props.onInput((e.currentTarget as HTMLInputElement).value)}
      />
      {props.error && (
        <p class="field-error" id={`${props.id}-error`}>
          {props.error}
        </p>
      )}
    </div>
  );
}

/** Runs an action: its sentence goes to the status line, its error to the alert; then `after` (a reload). */
export function useAct(after?: () => unknown) {
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>(null);
  const act = async (work: () => Promise<string>) => {
    setError(null);
    try {
      setNote(await work());
      await after?.();
    } catch (e) {
      setError(e);
    }
  };
  return { note, error, setError, act };
}

export function Notes({ note, error }: { note: string; error: unknown }) {
  return (
    <>
      <p role="status">{note}</p>
      <ErrorNote error={error} />
    </>
  );
}
