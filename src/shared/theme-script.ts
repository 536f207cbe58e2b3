/**
 * The script that sets the theme before first paint, so a dark theme never flashes light. It is
 * inlined into every page's <head> (an external file would block rendering for a round trip), and
 * the server's CSP allows exactly this text by its hash.
 */
export const THEME_SCRIPT =
  "try{var t=localStorage.getItem('nodeharbor-theme');if(t==='dark'||(t===null&&matchMedia('(prefers-color-scheme: dark)').matches))document.documentElement.classList.add('dark')}catch(e){}";
