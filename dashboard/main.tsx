// The dashboard's entry: asks who is signed in and draws the frame.
import { h, render } from 'preact';
import './dashboard.css';
import { loadSession } from './api.ts';
import { App } from './App.tsx';

const root = document.getElementById('app')!;
// The page's "Loading" line is the shell's, not Preact's: it goes before the frame is drawn.
root.textContent = '';
render(<App />, root);
loadSession().catch(() => undefined);
