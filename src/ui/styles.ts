// One stylesheet, adopted by the shadow root: nothing leaks out, the page's CSS does not
// leak in, and a Content-Security-Policy without 'unsafe-inline' styles still allows it.
// Written compact on purpose: every byte here is downloaded by every customer.
export const css = `
:host{all:initial}
.bd{position:fixed;inset:0;z-index:2147483647;display:flex;align-items:center;justify-content:center;background:#101218a0;font:15px/1.45 system-ui,sans-serif;color:#16181d}
.dl{position:relative;box-sizing:border-box;width:min(400px,100%);max-height:100%;overflow:auto;padding:20px;background:#fff;border-radius:14px}
@media(max-width:480px){.dl{width:100%;height:100%;border-radius:0}}
@media(prefers-reduced-motion:no-preference){.dl{animation:i .2s}@keyframes i{from{opacity:0;transform:translateY(9px)}}}
header{padding-right:40px}
.lg{float:left;width:40px;height:40px;margin-right:10px;border-radius:8px;object-fit:cover}
h2,h3{margin:0;font-size:17px}
h3{margin:14px 0 8px}
p{margin:8px 0}
.rb{display:inline-block;margin:0 0 8px;padding:2px 8px;border-radius:6px;background:#ffd33d;font-size:12px;font-weight:700}
button{min-height:36px;padding:6px 12px;border:1px solid #b9bdc6;border-radius:8px;background:#fff;color:inherit;font:inherit;cursor:pointer}
:focus-visible{outline:3px solid #2547d0;outline-offset:2px}
.x{position:absolute;top:12px;right:12px;width:36px;border:0;font-size:24px}
.pr{width:100%;min-height:44px;margin-top:14px;background:#2547d0;color:#fff;font-weight:600}
.ln{padding:6px 0;border:0;color:#2547d0;text-decoration:underline}
label{display:block;margin-top:12px;font-weight:600}
input{display:block;box-sizing:border-box;width:100%;margin-top:4px;padding:9px;border:1px solid #767b86;border-radius:8px;font:inherit}
[aria-invalid=true]{border-color:#b3261e}
.er{margin:4px 0 0;color:#b3261e}
ul{display:grid;gap:8px;padding:0;list-style:none}
.cn{display:flex;width:100%;gap:8px;align-items:baseline}
small,.lb,dt,.tot{color:#4a4f59}
.tot{margin:2px 0 0}
.lb{margin:14px 0 4px}
.row{display:flex;flex-wrap:wrap;gap:8px;align-items:center}
.amt{font-size:22px;font-weight:700}
.ad,.nt{padding:8px;border-radius:8px;background:#f2f4f8}
.nt{background:#fff4e0}
code{font:13px ui-monospace,monospace;word-break:break-all}
svg{display:block;width:196px;margin:12px auto}
dl{display:grid;grid-template-columns:auto 1fr;gap:2px 12px;margin:12px 0}
dd{margin:0}
.ok{color:#146c2e}
.sb{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin-top:14px;padding:8px;border:1px dashed #9a6b00;border-radius:8px}
`.replace(/\n/g, '');
