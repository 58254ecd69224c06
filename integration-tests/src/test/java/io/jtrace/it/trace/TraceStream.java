package io.jtrace.it.trace;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.jtrace.protos.Trace;
import io.jtrace.protos.TracePacket;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Walks a trace file one {@code Trace.packet} at a time. A trace of a real service is hundreds of MB
 * and millions of packets: {@code Trace.parseFrom(allBytes)} would need the file and every decoded
 * packet in the heap at once, so the scale tests would measure the test's memory, not the product.
 * Here only the current packet is alive.
 */
public final class TraceStream {
    /** Receives each packet, in file order; {@code index} counts packets from 0. */
    @FunctionalInterface
    public interface PacketHandler {
        void packet(long index, TracePacket packet) throws IOException;
    }

    /** Field 1, wire type 2 (length-delimited): (1 << 3) | 2. */
    private static final int PACKET_TAG = (Trace.PACKET_FIELD_NUMBER << 3) | WireFormat.WIRETYPE_LENGTH_DELIMITED;

    private TraceStream() {}

    /** Hands every packet of {@code file} to {@code handler}; returns how many there were. */
    public static long forEachPacket(Path file, PacketHandler handler) throws IOException {
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            return forEachPacket(in, handler);
        }
    }

    public static long forEachPacket(InputStream in, PacketHandler handler) throws IOException {
        CodedInputStream cis = CodedInputStream.newInstance(in, 1 << 16);
        long index = 0;
        while (true) {
            // The size limit counts bytes since the last reset; a multi-GB trace would otherwise hit
            // protobuf's 2 GB guard although no single packet is large.
            cis.resetSizeCounter();
            int tag = cis.readTag();
            if (tag == 0) {
                return index;
            }
            if (tag != PACKET_TAG) {
                // Not a packet (a field a future writer may add at the top level): skip it, as
                // trace_processor does.
                cis.skipField(tag);
                continue;
            }
            int length = cis.readRawVarint32();
            int oldLimit = cis.pushLimit(length);
            TracePacket packet = TracePacket.parseFrom(cis);
            cis.popLimit(oldLimit);
            handler.packet(index++, packet);
        }
    }
}
