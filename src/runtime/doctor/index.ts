export type { DoctorCheck, DoctorReport, DoctorTarget } from "./doctor.ts";
export { runDoctor } from "./doctor.ts";
