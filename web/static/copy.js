// Copy buttons for embed snippets. The page works without this script: the
// snippets are in read-only fields that can be selected and copied by hand.
document.addEventListener("click", async (e) => {
  const b = e.target.closest("button[data-copy]");
  if (!b) return;
  const input = document.getElementById(b.dataset.copy);
  try {
    await navigator.clipboard.writeText(input.value);
    b.textContent = "Copied";
  } catch {
    input.select();
    b.textContent = "Press Ctrl+C";
  }
  setTimeout(() => (b.textContent = "Copy"), 1500);
});
