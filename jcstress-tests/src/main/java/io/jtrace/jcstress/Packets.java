package io.jtrace.jcstress;

import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.proto.WireFormat;
import io.jtrace.shm.writer.TraceWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Recognisable packets for the tests: packet {@code i} is {@value #FIELDS} fixed64 fields (field 1) whose
 * values depend on {@code i} and on a use tag, so a reader can tell a whole packet from a torn one and
 * one use of a chunk from another.
 */
final class Packets {
    static final int FIELDS = 4;
    /** tag byte + 8 value bytes per field. */
    static final int PAYLOAD = FIELDS * 9;
    /**
     * A framed packet as the writer frames it: tag, 4-byte size field, payload, sequence id slot (empty
     * here; a writer fills in the id it proposes).
     */
    static final int FRAME = 1 + WireFormat.RESERVED_SIZE_BYTES + PAYLOAD + WireFormat.SEQUENCE_ID_SLOT_BYTES;
    /** Uses and packets per use the frames are prepared for. */
    static final int USES = 4;
    static final int PACKETS = 4;
    private static final int FIXED64_TAG = 1 << 3 | 1;
    /** The frames, built once, so the actors compare bytes and allocate nothing. */
    private static final byte[][][] FRAMES = new byte[USES][PACKETS][];

    static {
        for (int use = 0; use < USES; use++) {
            for (int packet = 0; packet < PACKETS; packet++) {
                FRAMES[use][packet] = frame(use, packet);
            }
        }
    }

    private Packets() {}

    static long value(int use, int packet, int field) {
        return 0x0101010101010101L * (use * 64 + packet * FIELDS + field + 1);
    }

    /** Writes packet {@code packet} of use {@code use} through the writer, as a data source does. */
    static void write(TraceWriter writer, int use, int packet) {
        ProtoWriter p = writer.beginPacket();
        for (int f = 0; f < FIELDS; f++) {
            p.fixed64(1, value(use, packet, f));
        }
        writer.endPacket();
    }

    /** Writes the frame of packet {@code packet} of use {@code use} at {@code at}, byte by byte. */
    static void put(ByteBuffer smb, int at, int use, int packet) {
        byte[] frame = FRAMES[use][packet];
        for (int i = 0; i < frame.length; i++) {
            smb.put(at + i, frame[i]);
        }
    }

    /**
     * Whether the {@code count} frames at {@code at} are exactly packets 0..count-1 of use {@code use}, each
     * ending in a sequence id slot whatever id it holds.
     */
    static boolean intact(ByteBuffer src, int at, int use, int count) {
        int idBytes = WireFormat.SEQUENCE_ID_SLOT_BYTES - 1;
        for (int packet = 0; packet < count; packet++) {
            byte[] frame = FRAMES[use][packet];
            int base = at + packet * FRAME;
            for (int i = 0; i < frame.length - idBytes; i++) {
                if (src.get(base + i) != frame[i]) {
                    return false;
                }
            }
            if (src.get(base + FRAME - 2) >= 0 || src.get(base + FRAME - 1) < 0) {
                return false;
            }
        }
        return true;
    }

    private static byte[] frame(int use, int packet) {
        ByteBuffer frame = ByteBuffer.allocate(FRAME).order(ByteOrder.LITTLE_ENDIAN);
        frame.put((byte) WireFormat.TRACE_PACKET_TAG);
        frame.putInt(WireFormat.redundantVarint(PAYLOAD + WireFormat.SEQUENCE_ID_SLOT_BYTES));
        for (int f = 0; f < FIELDS; f++) {
            frame.put((byte) FIXED64_TAG).putLong(value(use, packet, f));
        }
        frame.put((byte) WireFormat.TRUSTED_SEQUENCE_ID_TAG).put((byte) 0x80).put((byte) 0);
        return frame.array();
    }
}
