// The gestures of the signs variant as small pictures (docs/RULES.md S2): one
// inline SVG per sign key of the lexicon, drawn in the text's colour. The
// server sends each sign's key and words (/api/i18n, "signs"); this file only
// draws. A face for the face's gestures, a hand for the hand's.
"use strict";

(() => {
  const FACE = '<circle cx="12" cy="12" r="9.5"/>';
  const FIST = '<rect x="7" y="11" width="10" height="9" rx="2.5"/>';
  const ICONS = {
    none: FACE + '<circle cx="8.5" cy="10" r="1" fill="currentColor"/><circle cx="15.5" cy="10" r="1" fill="currentColor"/><path d="M8.5 15.5h7"/>',
    eyes_raised: FACE + '<circle cx="8.5" cy="10" r="2"/><circle cx="15.5" cy="10" r="2"/><circle cx="8.5" cy="8.6" r="0.9" fill="currentColor"/><circle cx="15.5" cy="8.6" r="0.9" fill="currentColor"/><path d="M9 16h6"/>',
    lips_raised: FACE + '<circle cx="8.5" cy="10" r="1" fill="currentColor"/><circle cx="15.5" cy="10" r="1" fill="currentColor"/><path d="M8 16h4.5q2.5 0 3.5-2.5"/>',
    wink: FACE + '<path d="M7 10.2h3"/><circle cx="15.5" cy="10" r="1" fill="currentColor"/><path d="M8.5 15q3.5 2.5 7 0"/>',
    pout: FACE + '<circle cx="8.5" cy="10" r="1" fill="currentColor"/><circle cx="15.5" cy="10" r="1" fill="currentColor"/><ellipse cx="12" cy="16" rx="2" ry="1.5"/>',
    thumb: FIST + '<path d="M9 11V4.5q0-1.5 1.5-1.5t1.5 1.5V11"/>',
    little_finger: FIST + '<path d="M14.5 11V5.5q0-1.2 1.1-1.2t1.1 1.2V11"/>',
    index: FIST + '<path d="M8 11V2.5q0-1.2 1.2-1.2t1.2 1.2V11"/>',
    writing: '<path d="M3 20q2-2 4 0t4 0 4 0"/><path d="M9 15 19 5l2 2-10 10-3 1z"/>',
    mouth_open: FACE + '<circle cx="8.5" cy="9.5" r="1" fill="currentColor"/><circle cx="15.5" cy="9.5" r="1" fill="currentColor"/><ellipse cx="12" cy="15.5" rx="2.5" ry="3"/>',
  };
  // The picture of sign ``key``: decorative, its name is written beside it.
  function icon(key) {
    return '<svg class="sign-icon" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false" ' +
      'fill="none" stroke="currentColor" stroke-width="1.5" stroke-linecap="round" stroke-linejoin="round">' +
      (ICONS[key] || ICONS.none) + "</svg>";
  }
  window.AluetteSigns = {icon};
})();
