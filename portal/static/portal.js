// Store Orders portal: progressive enhancement only; every form works without this file.
'use strict';

// Copy buttons: <button data-copy="element-id" hidden> copies that element's text (an input's value, a list's items one a line).
for (const button of document.querySelectorAll('button[data-copy]')) {
  const target = document.getElementById(button.dataset.copy);
  if (!target || !navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    // A list (the recovery codes) is copied as rendered: one item a line.
    const text = 'value' in target ? target.value : target.tagName === 'UL' ? target.innerText : target.textContent;
    try {
      await navigator.clipboard.writeText(text.trim());
      const label = button.textContent;
      button.textContent = 'Copied';
      setTimeout(() => { button.textContent = label; }, 2000);
    } catch {
      if ('select' in target) target.select();
    }
  });
}

// Confirmations: <form data-confirm="Question?"> asks before it submits.
for (const form of document.querySelectorAll('form[data-confirm]')) {
  form.addEventListener('submit', (event) => {
    if (!window.confirm(form.dataset.confirm)) event.preventDefault();
  });
}
