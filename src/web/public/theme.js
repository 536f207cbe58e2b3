// Runs before first paint (an external file: the CSP allows no inline script), so a dark theme never flashes light.
try {
  var t = localStorage.getItem('nodeharbor-theme');
  if (t === 'dark' || (t === null && matchMedia('(prefers-color-scheme: dark)').matches)) {
    document.documentElement.classList.add('dark');
  }
} catch {
  // Storage blocked: the light theme stands.
}
