// One stylesheet, adopted by the shadow root: nothing leaks out, the page's CSS does not
// leak in, and a Content-Security-Policy without 'unsafe-inline' styles still allows it.
// Written compact on purpose: every byte here is downloaded by every customer. (The line
// breaks between rules are CSS whitespace, so they stay as written.)
//
// Colours are variables: light by default, dark for class d (theme "dark") and for class a
// (theme "auto") when the system asks. Every text colour holds 4.5:1 on its background in
// both, which the axe e2e checks. Sides are logical (inline-start/end), so Arabic mirrors.
const dark = '--bg:#1b1d23;--fg:#eceef2;--mu:#b4b9c4;--pn:#2a2d36;--nb:#3d321c;--li:#8a90a0;--er:#ff9d92;--ok:#8ddca4;--lk:#a9bdff';
export const css = `
:host{all:initial}
.bd{position:fixed;inset:0;z-index:2147483647;display:flex;align-items:center;justify-content:center;background:#101218a8;font:15px/1.45 system-ui,sans-serif}
.dl{--bg:#fff;--fg:#16181d;--mu:#4a4f59;--pn:#f2f4f8;--nb:#fff4e0;--li:#767b86;--er:#b3261e;--ok:#146c2e;--lk:#2547d0;--ac:#2547d0;--on:#fff;position:relative;box-sizing:border-box;width:min(400px,100%);max-height:100%;overflow:auto;padding:20px;background:var(--bg);color:var(--fg);border-radius:14px}
.d{${dark}}
@media(prefers-color-scheme:dark){.a{${dark}}}
@media(max-width:480px){.dl{width:100%;height:100%;border-radius:0}}
@media(prefers-reduced-motion:no-preference){.dl{animation:i .2s}@keyframes i{from{opacity:0;transform:translateY(9px)}}}
.hd{padding-inline-end:40px}
.lg{float:inline-start;width:40px;height:40px;margin-inline-end:10px;border-radius:8px;object-fit:cover}
h2,h3{margin:0;font-size:17px}
h2,.amt,code,dd{overflow-wrap:anywhere}
h3{margin:14px 0 8px}
p{margin:8px 0}
.rb{display:inline-block;margin:0 0 8px;padding:2px 8px;border-radius:6px;background:#ffd33d;color:#000;font-size:12px;font-weight:700}
button,.pr{box-sizing:border-box;min-height:36px;padding:6px 12px;border:1px solid var(--li);border-radius:8px;background:var(--bg);color:inherit;font:inherit;cursor:pointer}
:focus-visible{outline:3px solid var(--lk);outline-offset:2px}
.x{position:absolute;top:12px;inset-inline-end:12px;width:36px;border:0;font-size:24px}
.pr{display:block;width:100%;min-height:44px;margin-top:14px;background:var(--ac);color:var(--on);font-weight:600;text-align:center;text-decoration:none;line-height:30px}
.sc{background:none;color:inherit}
.ln{padding:6px 0;border:0;color:var(--lk);text-decoration:underline}
label{display:block;margin-top:12px;font-weight:600}
input{display:block;box-sizing:border-box;width:100%;margin-top:4px;padding:9px;border:1px solid var(--li);border-radius:8px;background:var(--bg);color:inherit;font:inherit}
[aria-invalid=true]{border-color:var(--er)}
.er{margin:4px 0 0;color:var(--er)}
ul{display:grid;gap:8px;padding:0;list-style:none}
.cn{display:flex;flex-wrap:wrap;width:100%;gap:0 8px;align-items:baseline;text-align:start}
.cn small{width:100%}
small,.lb,dt,.tot{color:var(--mu)}
.tot{margin:2px 0 0}
.lb{margin:14px 0 4px}
.row{display:flex;flex-wrap:wrap;gap:8px;align-items:center}
.amt{font-size:22px;font-weight:700}
.ad,.nt{padding:8px;border-radius:8px;background:var(--pn)}
.nt{background:var(--nb)}
code{font:13px ui-monospace,monospace}
svg{display:block;width:196px;max-width:100%;margin:12px auto}
dl{display:grid;grid-template-columns:auto 1fr;gap:2px 12px;margin:12px 0}
dd{margin:0}
.ok{color:var(--ok)}
.sb{display:flex;gap:6px;align-items:center;margin-top:14px;padding:8px;border:1px dashed var(--li);border-radius:8px}
.w{width:min(760px,100%)}
@media(min-width:700px){.pay{display:grid;grid-template-columns:1fr 210px;gap:0 24px;align-items:start}}
.net{margin:10px 0;padding:6px 10px;border:2px solid var(--ac);border-radius:8px}
.net p{margin:3px 0}
.wn{font-weight:600}
.tm{padding:6px;border-radius:8px}
.ur{border:2px solid var(--er);background:var(--nb)}
.mk{width:44px;height:44px;margin:4px auto 0;border-radius:50%;background:var(--ok);color:var(--bg);font-size:26px;line-height:44px;text-align:center}
.due,.tm{margin-inline-start:auto}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
`;
