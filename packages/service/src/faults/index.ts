export { TeamFaultInjector } from './injector.js';
export { FAULT_HEADER, faultCoversRoute, pickRequestFault, type RequestFault } from './request-faults.js';
