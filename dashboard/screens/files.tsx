// A file input and the file chosen in it, for the screens that upload an image (Links' cover
// photo, Settings' logo): out of common.tsx, so the first load does not carry them.
import { h } from 'preact';

/** A file input: an image, as a form's part (the service checks its bytes). */
export function FileField({ id, label }: { id: string; label: string }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} type="file" accept="image/*" />
    </div>
  );
}

/** The file chosen in FileField `id`, if any. */
export const chosen = (id: string): File | undefined => (document.getElementById(id) as HTMLInputElement | null)?.files?.[0];
