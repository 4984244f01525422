// Live regions: every element with data-live is refreshed from its URL every few seconds, without reloading the
// page. Each region asks again only a period after its previous answer came (or failed), so refreshes never overlap
// however slow the server is; a region holding a field the operator is typing in waits until the field loses focus.
const PERIOD_MS = 3000;

async function refresh(region) {
  if (region.contains(document.activeElement) && document.activeElement.matches('input, textarea, select')) return;
  try {
    const response = await fetch(region.dataset.live, { credentials: 'same-origin', headers: { accept: 'text/html' } });
    if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
    region.innerHTML = await response.text();
    region.dataset.refreshed = String(Number(region.dataset.refreshed ?? '0') + 1);
    region.removeAttribute('data-stale');
  } catch (error) {
    region.dataset.stale = `not refreshed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function keepFresh(region) {
  setTimeout(async () => {
    await refresh(region);
    keepFresh(region);
  }, PERIOD_MS);
}

for (const region of document.querySelectorAll('[data-live]')) keepFresh(region);

// A second look before anything irreversible.
for (const form of document.querySelectorAll('form.purge')) {
  form.addEventListener('submit', (event) => {
    if (!window.confirm('Purge deletes these dead letters for good. Go on?')) event.preventDefault();
  });
}
