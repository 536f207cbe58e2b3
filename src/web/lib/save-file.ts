/** Saves a file the page holds as a download, through an object URL and an `<a download>` click. */
export function saveFile(file: Blob, name: string): void {
  const url = URL.createObjectURL(file);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  // The download has taken the file once the click is handled.
  setTimeout(() => URL.revokeObjectURL(url));
}
