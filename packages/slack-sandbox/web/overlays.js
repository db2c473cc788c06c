// What opens over the page: the person's open modal (re-rendered only when it changed, keeping what was
// typed) and Slack's confirmation dialog.

import { captureInputs, restoreInputs } from '/web/inputs.js';
import { escapeHtml, renderBlocks } from '/web/render.js';
import { $, context, ui } from '/web/state.js';

export function renderModal() {
  const s = ui.state;
  const modal = [...s.views].reverse().find((v) => v.type === 'modal' && v.user === ui.user && !v.closed);
  const root = $('modal-root');
  if (!modal) {
    root.innerHTML = '';
    return;
  }
  if (
    root.dataset.view === modal.id &&
    root.dataset.hash === modal.hash &&
    root.dataset.errors === JSON.stringify(ui.viewErrors[modal.id] ?? {})
  )
    return;
  const typed = root.dataset.view === modal.id ? captureInputs(root) : new Map();
  root.dataset.view = modal.id;
  root.dataset.hash = modal.hash;
  root.dataset.errors = JSON.stringify(ui.viewErrors[modal.id] ?? {});
  const ctx = context({ kind: 'view', viewId: modal.id }, ui.viewErrors[modal.id]);
  root.innerHTML = `<div class="overlay"><form class="modal" data-testid="modal" data-view="${modal.id}">
    <h2>${escapeHtml(modal.title?.text ?? '')}</h2>
    ${renderBlocks(modal.blocks, ctx)}
    <div class="buttons">
      <button type="button" class="button" data-close>${escapeHtml(modal.close?.text ?? 'Cancel')}</button>
      ${modal.submit ? `<button type="submit" class="button primary">${escapeHtml(modal.submit.text)}</button>` : ''}
    </div></form></div>`;
  restoreInputs(root, typed);
}

// Slack's confirmation dialog for an element with a `confirm` object: nothing is sent unless confirmed.
export function askToConfirm(dialog) {
  const root = $('confirm-root');
  root.innerHTML = `<div class="overlay"><div class="modal confirm" role="dialog" aria-modal="true" data-testid="confirm">
    <h2>${escapeHtml(dialog.title)}</h2>
    <div class="confirm-text">${dialog.html}</div>
    <div class="buttons">
      <button type="button" class="button" data-answer="deny">${escapeHtml(dialog.deny)}</button>
      <button type="button" class="button ${dialog.style === 'danger' ? 'danger' : 'primary'}" data-answer="confirm">${escapeHtml(dialog.confirm)}</button>
    </div></div></div>`;
  return new Promise((resolve) => {
    root.querySelector('.confirm').addEventListener('click', (event) => {
      const answer = event.target.closest('[data-answer]')?.dataset.answer;
      if (!answer) return;
      event.stopPropagation();
      root.innerHTML = '';
      resolve(answer === 'confirm');
    });
  });
}
