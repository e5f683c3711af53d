// What the first load draws: asks who is signed in and draws the frame (the screens come as
// the router needs them). Its own chunk, which every screen's chunk imports what it shares
// from, so each module is one instance whatever name the page loaded the entry by.
import { h, render } from 'preact';
import { loadSession } from './api.ts';
import { App } from './App.tsx';
import { preferred, speak } from './words.ts';

/** Draws the frame in the page's #app; its "Loading" line is the shell's, gone before the frame is drawn. */
export function start(): void {
  const root = document.getElementById('app')!;
  root.textContent = '';
  void speak(preferred());
  render(<App />, root);
  loadSession().catch(() => undefined);
}
