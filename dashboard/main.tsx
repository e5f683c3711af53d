// The dashboard's entry, loaded by the page under its hashed name: the style, and the frame as
// a chunk of its own. Were the frame here, the screens' chunks would import it by the plain name
// (./dashboard.js), a second copy of the session, Preact and the router beside the page's.
import './dashboard.css';

void import('./frame.tsx').then((frame) => frame.start());
