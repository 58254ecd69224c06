package io.jtrace.shm.proto;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Protobuf wire-format constants and size arithmetic shared by the writer and its readers. */
public final class WireFormat {
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    public static final int VARINT = 0;
    public static final int FIXED64 = 1;
    public static final int LENGTH_DELIMITED = 2;
    public static final int FIXED32 = 5;

    /** Bytes reserved for a size field that is written after its content: a redundant 4-byte varint. */
    public static final int RESERVED_SIZE_BYTES = 4;
    /** Largest value a 4-byte redundant varint holds. */
    public static final int MAX_RESERVED_SIZE = (1 << 28) - 1;
    /** Size value that marks a packet dropped by its writer. */
    public static final int DROPPED_PACKET_SIZE = MAX_RESERVED_SIZE;

    /**
     * Tag of {@code Trace.packet} (field 1, length-delimited). In a {@link
     * io.jtrace.shm.abi.ChunkHeader#FLAG_FILE_FRAMED file-framed} chunk it opens every frame, so a run of
     * whole packets there is already a piece of a trace file.
     */
    public static final int TRACE_PACKET_TAG = 1 << 3 | LENGTH_DELIMITED;
    /** Tag of {@code TracePacket.trusted_packet_sequence_id} (field 10, varint). */
    public static final int TRUSTED_SEQUENCE_ID_TAG = 10 << 3;
    /**
     * Bytes of the trusted_packet_sequence_id slot that ends every packet of a file-framed chunk: the tag
     * and a 2-byte redundant varint, written as 0 by the producer and stamped by the service.
     */
    public static final int SEQUENCE_ID_SLOT_BYTES = 3;
    /** Largest sequence id the 2 varint bytes of a slot hold. */
    public static final int MAX_SLOT_SEQUENCE_ID = (1 << 14) - 1;

    private WireFormat() {}

    /** The slot's 3 bytes, little-endian in an int, holding {@code sequenceId} (at most {@link #MAX_SLOT_SEQUENCE_ID}). */
    public static int sequenceIdSlot(int sequenceId) {
        return TRUSTED_SEQUENCE_ID_TAG | (sequenceId & 0x7F | 0x80) << 8 | (sequenceId >>> 7 & 0x7F) << 16;
    }

    /** Whether the 3 bytes at {@code data[pos]} are a sequence id slot (stamped or not). */
    public static boolean isSequenceIdSlot(byte[] data, int pos) {
        return data[pos] == TRUSTED_SEQUENCE_ID_TAG && data[pos + 1] < 0 && data[pos + 2] >= 0;
    }

    public static int tag(int field, int wireType) {
        return (field << 3) | wireType;
    }

    public static int varintSize(long value) {
        // 1 + floor((bits - 1) / 7) for bits = 64 - leading zeros; 0 takes 1 byte.
        int bits = 64 - Long.numberOfLeadingZeros(value | 1);
        return (bits + 6) / 7;
    }

    /**
     * Encodes {@code size} as 4 varint bytes with the continuation bit forced on the first three,
     * packed little-endian into an int so a single store writes it.
     */
    public static int redundantVarint(int size) {
        return (size & 0x7F | 0x80)
                | ((size >>> 7 & 0x7F | 0x80) << 8)
                | ((size >>> 14 & 0x7F | 0x80) << 16)
                | ((size >>> 21 & 0x7F) << 24);
    }

    /**
     * Decodes a 4-byte redundant varint read as a little-endian int; -1 if the bytes are not one
     * (continuation bits wrong), which a reader of a hostile buffer must treat as corruption.
     */
    public static int decodeRedundantVarint(int packed) {
        if ((packed & 0x80808080) != 0x00808080) {
            return -1;
        }
        return (packed & 0x7F)
                | ((packed >>> 8 & 0x7F) << 7)
                | ((packed >>> 16 & 0x7F) << 14)
                | ((packed >>> 24 & 0x7F) << 21);
    }

    /**
     * The 4-byte redundant varint at {@code data[pos]} (one load), or -1 if the 4 bytes are not one; the
     * caller ensures 4 bytes are there.
     */
    public static int redundantVarintAt(byte[] data, int pos) {
        return decodeRedundantVarint((int) INTS.get(data, pos));
    }

    /** UTF-8 length of {@code s}; unpaired surrogates count as the 1-byte '?' the writer emits for them. */
    public static int utf8Length(CharSequence s) {
        int n = s.length();
        int bytes = n;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                continue;
            }
            if (c < 0x800) {
                bytes += 1;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 2; // the pair's 2 chars were counted once each; together they take 4 bytes
                i++;
            } else if (!Character.isSurrogate(c)) {
                bytes += 2;
            }
        }
        return bytes;
    }
}
