const rows = ["ada", "grace"];

export function loadData() {
  return [...rows];
}
