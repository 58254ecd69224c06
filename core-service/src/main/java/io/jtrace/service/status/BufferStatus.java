package io.jtrace.service.status;

import io.jtrace.protos.TraceStats;

/**
 * One trace buffer of a session.
 *
 * @param used bytes of chunks stored and not yet read out
 * @param stats its counters, as the trace's TraceStats would report them now
 */
public record BufferStatus(int id, long capacity, long used, String fillPolicy, TraceStats.BufferStats stats) {
}
