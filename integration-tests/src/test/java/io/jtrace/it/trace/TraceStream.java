package io.jtrace.it.trace;

import io.jtrace.protos.TracePacket;
import io.jtrace.service.output.TraceFileReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Walks a trace file one {@code Trace.packet} at a time, through the product's own
 * {@link TraceFileReader}. A trace of a real service is hundreds of MB and millions of packets:
 * {@code Trace.parseFrom(allBytes)} would need the file and every decoded packet in the heap at once,
 * so the scale tests would measure the test's memory, not the product. Here only the current packet is
 * alive. A file whose framing is damaged (a cut-off last packet) fails the test.
 */
public final class TraceStream {
    /** Receives each packet, in file order; {@code index} counts packets from 0. */
    @FunctionalInterface
    public interface PacketHandler {
        void packet(long index, TracePacket packet) throws IOException;
    }

    private TraceStream() {}

    /** Hands every packet of {@code file} to {@code handler}; returns how many there were. */
    public static long forEachPacket(Path file, PacketHandler handler) throws IOException {
        try (TraceFileReader reader = TraceFileReader.open(file)) {
            long index = 0;
            while (reader.next()) {
                handler.packet(index++, TracePacket.parseFrom(ByteBuffer.wrap(reader.packet(), 0, reader.packetLength())));
            }
            if (reader.damage() != null) {
                throw new IOException(file + " is damaged " + reader.damage());
            }
            return index;
        }
    }
}
