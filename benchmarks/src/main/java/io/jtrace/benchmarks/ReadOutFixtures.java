package io.jtrace.benchmarks;

import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.service.buffer.SequenceIdentity;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.proto.WireFormat;
import java.nio.ByteBuffer;

/** What the read-out benchmarks feed the service: a producer's identity and steady-state slices. */
final class ReadOutFixtures {
    private ReadOutFixtures() {}

    /** One producer (pid 1, uid 0), a sequence id per writer; {@code trusted} as an in-process producer is. */
    static SequenceIdentity identity(boolean trusted) {
        return new SequenceIdentity() {
            @Override
            public int sequenceId(int producerId, int writerId) {
                return writerId + 1;
            }

            @Override
            public int pid(int producerId) {
                return 1;
            }

            @Override
            public int uid(int producerId) {
                return 0;
            }

            @Override
            public boolean trusted(int producerId) {
                return trusted;
            }
        };
    }

    /**
     * A slice begin as the agent writes it in steady state: timestamp as a delta on the sequence's clock,
     * category interned, and the name interned ({@code nameBytes} 0) or written out in that many bytes.
     */
    static byte[] sliceBegin(int nameBytes) {
        TrackEvent.Builder event = TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_BEGIN).addCategoryIids(1);
        if (nameBytes == 0) {
            event.setNameIid(1);
        } else {
            event.setName("n".repeat(nameBytes));
        }
        return TracePacket.newBuilder().setTimestamp(81).setSequenceFlags(2).setTrackEvent(event).build().toByteArray();
    }

    /** The packets word of a chunk of {@code packets} whole packets framed by {@link #putFramed}. */
    static int packetsWord(int packets) {
        return ChunkHeader.packetsWord(packets, ChunkHeader.FLAG_FILE_FRAMED);
    }

    /** Bytes {@link #putFramed} takes for {@code packet}. */
    static int framedSize(byte[] packet) {
        int size = packet.length + WireFormat.SEQUENCE_ID_SLOT_BYTES;
        return (size < 0x80 ? 2 : 1 + WireFormat.RESERVED_SIZE_BYTES) + size;
    }

    /**
     * Frames {@code packet} at {@code pos} of a little-endian buffer as a writer frames it in a
     * file-framed chunk: tag, size (1 byte when it fits), the packet, its empty sequence id slot.
     * Returns the position after it.
     */
    static int putFramed(ByteBuffer b, int pos, byte[] packet) {
        int size = packet.length + WireFormat.SEQUENCE_ID_SLOT_BYTES;
        b.put(pos++, (byte) WireFormat.TRACE_PACKET_TAG);
        if (size < 0x80) {
            b.put(pos++, (byte) size);
        } else {
            b.putInt(pos, WireFormat.redundantVarint(size));
            pos += WireFormat.RESERVED_SIZE_BYTES;
        }
        b.put(pos, packet);
        pos += packet.length;
        b.put(pos++, (byte) WireFormat.TRUSTED_SEQUENCE_ID_TAG).put(pos++, (byte) 0x80).put(pos++, (byte) 0);
        return pos;
    }

    /** The matching end: no name, no category, the track from the sequence's defaults. */
    static byte[] sliceEnd() {
        return TracePacket.newBuilder().setTimestamp(90).setSequenceFlags(2)
                .setTrackEvent(TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_END))
                .build().toByteArray();
    }
}
