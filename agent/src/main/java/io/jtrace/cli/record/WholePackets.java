package io.jtrace.cli.record;

import io.jtrace.service.output.TraceFileReader;
import java.io.IOException;
import java.nio.channels.FileChannel;
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
