const rows = ["ada", "grace"];

export function fetchData() {
  return [...rows];
}
