// Drawing of the Aluette cards as inline SVG: the four Spanish-style suits
// (Coins, Cups, Batons, Swords), pips for 1-9, a letter for Valet, Cavalière and
// Roi (the letters of the page's language, from the catalog), and a gold frame
// with a ribbon for the eight named cards.
// Nothing here reads a card id: each card's suit and rank index come from the
// server's /api/deck (aluette_env/game/cards.py: suit_of, rank_index_of), like
// which cards are named (deck.js).
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const SUIT_CLASS = ["coins", "cups", "batons", "swords"];
const RANK_LABEL = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "V", "C", "R"]; // until the catalog loads

// Suit symbols drawn around (0, 0), about 24 units tall.
const SUIT_SYMBOL = {
  coins: '<circle r="11" class="fill"/><circle r="7.5" class="line"/><circle r="2.6" class="dot"/>',
  cups: '<path class="fill" d="M-10 -11 H10 C10 -1 6 4 0 4 C-6 4 -10 -1 -10 -11 Z"/>' +
        '<rect class="fill" x="-1.8" y="3" width="3.6" height="6"/>' +
        '<path class="fill" d="M-7 12 C-7 9 7 9 7 12 Z"/><path class="line" d="M-7 -6 H7"/>',
  batons: '<path class="fill" d="M-3 -12 C1 -13 4 -11 3 -8 L2 11 C2 13 -2 13 -2 11 L-3.5 -8 Z"/>' +
          '<circle class="dot" cx="0" cy="-3" r="1.4"/><circle class="dot" cx="0.4" cy="4" r="1.4"/>',
  swords: '<path class="fill" d="M-1.6 -13 L1.6 -13 L1.6 5 L-1.6 5 Z"/><path class="fill" d="M-1.6 -13 L0 -16 L1.6 -13 Z"/>' +
          '<rect class="fill" x="-7" y="5" width="14" height="2.6" rx="1"/>' +
          '<rect class="fill" x="-1.3" y="7.6" width="2.6" height="5"/><circle class="fill" cx="0" cy="13.5" r="1.8"/>',
};

// Pip positions (in a 100 x 150 card) for ranks 1-9.
const PIPS = [
  [[50, 75]],
  [[50, 45], [50, 105]],
  [[50, 40], [50, 75], [50, 110]],
  [[35, 45], [65, 45], [35, 105], [65, 105]],
  [[35, 45], [65, 45], [50, 75], [35, 105], [65, 105]],
  [[35, 42], [65, 42], [35, 75], [65, 75], [35, 108], [65, 108]],
  [[35, 40], [65, 40], [50, 57], [35, 75], [65, 75], [35, 110], [65, 110]],
  [[35, 38], [65, 38], [50, 56], [35, 75], [65, 75], [50, 94], [35, 112], [65, 112]],
  [[35, 38], [65, 38], [35, 62], [65, 62], [50, 75], [35, 88], [65, 88], [35, 112], [65, 112]],
];

function escapeXml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}

function symbol(suit, x, y, scale) {
  return `<g class="pip" transform="translate(${x} ${y}) scale(${scale})">${SUIT_SYMBOL[suit]}</g>`;
}

// The face of the card of suit `suitIndex` (0-3) and rank index `rank` (0-11) as
// an SVG string; `title` (a named card's name) adds the ribbon; `faces` (12
// labels by rank, from the catalog) are the corner letters.
function cardSvg(suitIndex, rank, title, faces) {
  const suit = SUIT_CLASS[suitIndex];
  const parts = [`<rect class="face" x="2" y="2" width="96" height="146" rx="9"/>`];
  if (title) parts.push(`<rect class="named-frame" x="6" y="6" width="88" height="138" rx="6"/>`);
  const label = escapeXml((faces && faces.length === 12 ? faces : RANK_LABEL)[rank]);
  parts.push(`<text class="index" x="12" y="24">${label}</text>`);
  parts.push(`<text class="index" x="88" y="140" transform="rotate(180 88 132)">${label}</text>`);
  if (rank < 9) {
    const scale = rank === 0 ? 1.9 : (rank < 3 ? 1.25 : 0.95);
    for (const [x, y] of PIPS[rank]) parts.push(symbol(suit, x, title ? Math.min(y, 98) : y, scale));
  } else {
    parts.push(`<text class="court" x="50" y="${title ? 78 : 88}">${label}</text>`);
    parts.push(symbol(suit, 50, title ? 100 : 114, 0.9));
    parts.push(`<path class="crown" d="M34 36 L40 26 L46 34 L50 22 L54 34 L60 26 L66 36 Z"/>`);
  }
  if (title) {
    parts.push(`<path class="ribbon" d="M4 112 H96 V134 H4 Z"/>`);
    parts.push(`<text class="ribbon-text" x="50" y="127" textLength="${Math.min(86, title.length * 7.5)}" lengthAdjust="spacingAndGlyphs">${escapeXml(title)}</text>`);
    parts.push(`<path class="star" d="M84 10 l2.4 5 5.4 .6 -4 3.7 1.1 5.3 -4.9 -2.7 -4.9 2.7 1.1 -5.3 -4 -3.7 5.4 -.6 Z"/>`);
  }
  return `<svg xmlns="${SVG_NS}" viewBox="0 0 100 150" class="card-svg suit-${suit}${title ? " named" : ""}" aria-hidden="true" focusable="false">${parts.join("")}</svg>`;
}

window.AluetteCards = {cardSvg, escapeXml};
