/* Every visible text of the page whose colour falls below WCAG 2.1 AA contrast (4.5:1, 3:1 for
   large text) on the background it is drawn on (the element's and its ancestors' colours,
   composited): a list of "TAG.class "text" colour on background ratio" lines (empty: none).
   With the argument true: instead, every distinct "colour on background, large, link" of the
   page's visible texts (what a colour-contrast check of the page judges). */
(pairs) => {
  const parse = c => { const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null;
    const p = m[1].split(",").map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const over = (top, under) => [0, 1, 2].map(i => top[i] * top[3] + under[i] * (1 - top[3]));
  const lum = rgb => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(rgb[0]) + 0.7152 * f(rgb[1]) + 0.0722 * f(rgb[2]); };
  const background = el => { const layers = [];
    for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; } }
    let rgb = [255, 255, 255]; for (let i = layers.length - 1; i >= 0; i--) rgb = over(layers[i], rgb); return rgb; };
  const bad = []; const seen = new Set(); const kinds = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode; const el = node.parentElement;
    if (!node.textContent.trim() || seen.has(el) || el.closest("script, style, mjx-container")) continue;
    seen.add(el);
    const box = el.getBoundingClientRect(); const s = getComputedStyle(el);
    if (!box.width || !box.height || s.visibility === "hidden") continue;
    const bg = background(el); const fg = over(parse(s.color), bg);
    const a = lum(fg), b = lum(bg); const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(s.fontSize); const large = size >= 24 || (Number(s.fontWeight) >= 700 && size >= 18.66);
    kinds.add(`rgb(${fg.map(Math.round)}) on rgb(${bg.map(Math.round)}), large ${large}, link ${!!el.closest("a")}`);
    if (ratio < (large ? 3 : 4.5)) bad.push(`${el.tagName}.${el.className} "${node.textContent.trim().slice(0, 25)}" ${s.color} on rgb(${bg.map(Math.round)}) ${ratio.toFixed(2)}`);
  }
  return pairs ? [...kinds] : bad;
}
