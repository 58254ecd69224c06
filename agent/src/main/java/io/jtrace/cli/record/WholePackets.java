package io.jtrace.cli.record;

import io.jtrace.service.output.TraceFileReader;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The whole packets of a trace the service wrote. A file cut inside a packet (its JVM exited while the
 * service wrote it) is cut back to its last whole packet, so what was recorded is kept and opens in
 * trace_processor without a truncation error.
 *
 * @param packets the whole packets
 * @param bytes the file's length after the cut
 * @param cut where and how the file was cut, or null if it was whole
 */
record WholePackets(long packets, long bytes, String cut) {
    /** How long the file must keep its size before it is read, after the connection was lost. */
    static final long SETTLE_MILLIS = 200;
    /** The longest wait for that: a service that still writes after it is over is not waited for. */
    static final long SETTLE_LIMIT_MILLIS = 3_000;

    /**
     * {@link #keep(Path)} once the file has kept its size for {@link #SETTLE_MILLIS}: when the connection
     * to the service was lost, its JVM may still be finishing the file in its exit, and cutting the file
     * back while it writes would leave a hole before the bytes it adds.
     */
    static WholePackets keepOnceSettled(Path trace) throws IOException {
        return keepOnceSettled(trace, SETTLE_MILLIS, SETTLE_LIMIT_MILLIS);
    }

    static WholePackets keepOnceSettled(Path trace, long settleMillis, long limitMillis) throws IOException {
        long deadline = System.nanoTime() + limitMillis * 1_000_000L;
        long size = Files.size(trace);
        long stableSince = System.nanoTime();
        while (System.nanoTime() - stableSince < settleMillis * 1_000_000L && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            long now = Files.size(trace);
            if (now != size) {
                size = now;
                stableSince = System.nanoTime();
            }
        }
        return keep(trace);
    }

    static WholePackets keep(Path trace) throws IOException {
        long packets;
        long whole;
        String damage;
        try (TraceFileReader reader = TraceFileReader.open(trace)) {
            while (reader.next()) {
                // counting
            }
            packets = reader.packets();
            whole = reader.wholeBytes();
            damage = reader.damage();
        }
        if (damage != null) {
            try (FileChannel channel = FileChannel.open(trace, StandardOpenOption.WRITE)) {
                channel.truncate(whole);
            }
        }
        return new WholePackets(packets, whole, damage);
    }
}
