/** `value` kept between `low` and `high`. */
export function clamp(value, low, high) {
  return Math.min(Math.max(value, low), high);
}
