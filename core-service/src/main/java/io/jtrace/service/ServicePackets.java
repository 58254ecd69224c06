package io.jtrace.service;

import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.SystemInfo;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TraceStats;
import io.jtrace.protos.Utsname;
import io.jtrace.service.buffer.PacketSink;

/**
 * The service's own packets, on sequence {@link TracingService#SERVICE_SEQUENCE_ID}: the clock
 * snapshots that let trace_processor place every timestamp, the trace config, system info and, at the
 * end, trace stats.
 */
final class ServicePackets {
    private final int pid;
    private final int uid;

    ServicePackets(int pid, int uid) {
        this.pid = pid;
        this.uid = uid;
    }

    /** The first packets of a trace: the session's start clocks, its config and the system. Returns the count. */
    int writeHeader(TracingSession session, PacketSink sink) {
        return writeHeader(session.startClocks, session.config, sink);
    }

    /** {@link #writeHeader(TracingSession, PacketSink)} from the session's start clocks and config (any thread). */
    int writeHeader(ClockSnapshot startClocks, TraceConfig config, PacketSink sink) {
        emit(sink, packet(boottime(startClocks)).setClockSnapshot(startClocks).setFirstPacketOnSequence(true));
        emit(sink, packet(0).setTraceConfig(config));
        emit(sink, packet(0).setSystemInfo(systemInfo()));
        return 3;
    }

    int writeClockSnapshot(ClockSnapshot clocks, PacketSink sink) {
        emit(sink, packet(boottime(clocks)).setClockSnapshot(clocks));
        return 1;
    }

    int writeStats(TraceStats stats, PacketSink sink) {
        emit(sink, packet(0).setTraceStats(stats));
        return 1;
    }

    private static long boottime(ClockSnapshot clocks) {
        return clocks.getClocks(0).getTimestamp();
    }

    private TracePacket.Builder packet(long boottime) {
        TracePacket.Builder b = TracePacket.newBuilder()
                .setTrustedPacketSequenceId(TracingService.SERVICE_SEQUENCE_ID)
                .setTrustedUid(uid)
                .setTrustedPid(pid);
        if (boottime > 0) {
            b.setTimestamp(boottime); // no timestamp_clock_id: the trace's default clock, BOOTTIME
        }
        return b;
    }

    private static void emit(PacketSink sink, TracePacket.Builder packet) {
        byte[] bytes = packet.build().toByteArray();
        sink.packet(bytes, 0, bytes.length, PacketSink.NO_TRAILER, 0);
    }

    private static SystemInfo systemInfo() {
        return SystemInfo.newBuilder()
                .setUtsname(Utsname.newBuilder()
                        .setSysname(System.getProperty("os.name", ""))
                        .setRelease(System.getProperty("os.version", ""))
                        .setMachine(System.getProperty("os.arch", "")))
                .setNumCpus(Runtime.getRuntime().availableProcessors())
                .setTracingServiceVersion("jtrace")
                .build();
    }
}
