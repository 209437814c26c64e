// REST for reservations and the door: each route runs its operation (_shared/checkin/operations.ts) as the caller.
import { mintAttendance } from "../../_shared/checkin/attendance-mint.ts";
import * as checkin from "../../_shared/checkin/operations.ts";
import { endpoint } from "../../_shared/http/endpoint.ts";
import * as routes from "./routes.ts";

export const checkinEndpoints = [
  endpoint(routes.getCheckInSettings, checkin.getSettings, ({ param }) => param),
  endpoint(routes.saveCheckInSettings, checkin.saveSettings, ({ param, json }) => ({ eventId: param.eventId, settings: json })),
  endpoint(routes.listStaff, checkin.listStaff, ({ param }) => param),
  endpoint(routes.addStaff, checkin.addStaff, ({ param, json }) => ({ eventId: param.eventId, person: json })),
  endpoint(routes.removeStaff, checkin.removeStaff, ({ param }) => param),
  endpoint(routes.reserve, checkin.reserve, ({ param }) => param),
  endpoint(routes.listEventReservations, checkin.listEventReservations, ({ param, query }) => ({ eventId: param.eventId, query })),
  endpoint(routes.listMyReservations, checkin.listMyReservations, ({ query }) => query),
  endpoint(routes.getReservation, checkin.getReservation, ({ param }) => param),
  endpoint(routes.cancelReservation, checkin.cancelReservation, ({ param }) => param),
  endpoint(routes.approveReservation, checkin.approveReservation, ({ param }) => param),
  endpoint(routes.declineReservation, checkin.declineReservation, ({ param }) => param),
  endpoint(routes.getTicket, checkin.getTicket, ({ param }) => param),
  endpoint(routes.reissueTicket, checkin.reissueTicket, ({ param }) => param),
  endpoint(routes.getAccess, checkin.getAccess, ({ param }) => param),
  endpoint(routes.scan, checkin.scan, ({ param, json }) => ({ eventId: param.eventId, scan: json })),
  endpoint(routes.recordOfflineScans, checkin.recordOfflineScans, ({ param, json }) => ({ eventId: param.eventId, batch: json })),
  endpoint(routes.undoScan, checkin.undoScan, ({ param }) => param),
  endpoint(routes.attendanceMint, mintAttendance, ({ param, json }) => ({ eventId: param.eventId, scanId: param.scanId, mint: json })),
  endpoint(routes.counts, checkin.counts, ({ param }) => param),
  endpoint(routes.manifest, checkin.manifest, ({ param }) => param),
  endpoint(routes.ticketKeys, checkin.ticketKeys, () => ({})),
  endpoint(routes.bindBracelet, checkin.bindBracelet, ({ param, json }) => ({ eventId: param.eventId, bracelet: json })),
  endpoint(routes.unbindBracelet, checkin.unbindBracelet, ({ param }) => param),
  endpoint(routes.markBraceletLost, checkin.markBraceletLost, ({ param }) => param),
];
