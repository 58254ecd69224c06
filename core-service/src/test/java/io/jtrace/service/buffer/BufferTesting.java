package io.jtrace.service.buffer;

import static io.jtrace.service.buffer.ChunkPayload.chunk;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.InvalidProtocolBufferException;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TraceStats;
import io.jtrace.protos.TrackEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntBinaryOperator;
import java.util.stream.Collectors;

/** Identities, packets, commits, reads and checks shared by the trace buffer tests. */
final class BufferTesting {
    static final int PRODUCER = 1;
    static final int OTHER_PRODUCER = 2;
    /** A buffer size no test fills. */
    static final long BIG = 1 << 20;
    /** Payload bytes of a chunk committed with {@link #commitPadded}. */
    static final int CHUNK_BYTES = 256;

    /** Distinct, recognisable values per producer and writer; never sequence id 1 (the service's). */
    static final SequenceIdentity IDENTITY = new SequenceIdentity() {
        @Override
        public int sequenceId(int producerId, int writerId) {
            return 1000 * producerId + writerId;
        }

        @Override
        public int pid(int producerId) {
            return 4000 + producerId;
        }

        @Override
        public int uid(int producerId) {
            return 5000 + producerId;
        }

        @Override
        public boolean trusted(int producerId) {
            return false;
        }
    };

    /** {@link #IDENTITY}, trusted: an in-process producer's. */
    static final SequenceIdentity TRUSTED_IDENTITY = trusted(0);

    /** {@link #IDENTITY}'s pids and uids, trusted, with {@code offset} added to each sequence id. */
    static SequenceIdentity trusted(int offset) {
        return trustedNaming((producerId, writerId) -> offset + IDENTITY.sequenceId(producerId, writerId));
    }

    /** {@link #IDENTITY}'s pids and uids, trusted, with the sequence ids {@code sequenceIds} gives. */
    static SequenceIdentity trustedNaming(IntBinaryOperator sequenceIds) {
        return new SequenceIdentity() {
            @Override
            public int sequenceId(int producerId, int writerId) {
                return sequenceIds.applyAsInt(producerId, writerId);
            }

            @Override
            public int pid(int producerId) {
                return IDENTITY.pid(producerId);
            }

            @Override
            public int uid(int producerId) {
                return IDENTITY.uid(producerId);
            }

            @Override
            public boolean trusted(int producerId) {
                return true;
            }
        };
    }

    private BufferTesting() {}

    static TracePacket pkt(String name) {
        return TracePacket.newBuilder().setTrackEvent(TrackEvent.newBuilder().setName(name)).build();
    }

    /** A chunk holding one whole packet {@link #pkt named} after each of {@code names}. */
    static ChunkPayload chunkOf(String... names) {
        ChunkPayload c = chunk();
        for (String name : names) {
            c.packet(pkt(name));
        }
        return c;
    }

    static boolean commit(TraceBuffer buffer, int producer, int writer, int chunkId, ChunkPayload c) {
        return buffer.copyChunk(producer, writer, chunkId, c.packetsWord(), c.bytes(), true);
    }

    static boolean commit(TraceBuffer buffer, int writer, int chunkId, ChunkPayload c) {
        return commit(buffer, PRODUCER, writer, chunkId, c);
    }

    /** Commits a chunk padded to {@link #CHUNK_BYTES} payload bytes, as a whole chunk copied out of an SMB is. */
    static boolean commitPadded(TraceBuffer buffer, int writer, int chunkId, ChunkPayload c) {
        return buffer.copyChunk(PRODUCER, writer, chunkId, c.packetsWord(), c.bytesPaddedTo(CHUNK_BYTES), true);
    }

    /** What one readAll delivered: the raw bytes of each packet and the packet parsed. */
    record Read(List<byte[]> raw, List<TracePacket> packets) {
        List<TracePacket> on(int producer, int writer) {
            return onSequence(packets, producer, writer);
        }
    }

    /**
     * Reads the buffer with {@link #IDENTITY}: after the session ended ({@code sessionEnded}) everything
     * stored, with whatever is missing reported lost; while it runs, each sequence up to where more data
     * may yet arrive. Every packet delivered must parse, and readAll must count them.
     */
    static Read read(TraceBuffer buffer, boolean sessionEnded) {
        List<byte[]> raw = new ArrayList<>();
        List<TracePacket> packets = new ArrayList<>();
        long delivered = buffer.readAll(IDENTITY, PacketSink.joined((bytes, offset, length) -> {
            byte[] copy = Arrays.copyOfRange(bytes, offset, offset + length);
            raw.add(copy);
            try {
                packets.add(TracePacket.parseFrom(copy));
            } catch (InvalidProtocolBufferException e) {
                fail("the buffer delivered a packet that does not parse: " + e);
            }
        }), sessionEnded);
        assertEquals(packets.size(), delivered, "readAll's return value counts the packets delivered");
        return new Read(raw, packets);
    }

    /** Everything stored, read as after the session ended with {@code identity}, each packet parsed. */
    static List<TracePacket> readAllWith(TraceBuffer buffer, SequenceIdentity identity) {
        List<TracePacket> packets = new ArrayList<>();
        buffer.readAll(identity, PacketSink.joined((bytes, offset, length) -> {
            try {
                packets.add(TracePacket.parseFrom(Arrays.copyOfRange(bytes, offset, offset + length)));
            } catch (InvalidProtocolBufferException e) {
                throw new AssertionError(e);
            }
        }), true);
        return packets;
    }

    static List<String> names(List<TracePacket> packets) {
        return packets.stream().map(p -> p.getTrackEvent().getName()).collect(Collectors.toList());
    }

    /** The packets of one sequence: those {@link #IDENTITY} gives the (producer, writer)'s sequence id. */
    static List<TracePacket> onSequence(List<TracePacket> packets, int producer, int writer) {
        int id = IDENTITY.sequenceId(producer, writer);
        return packets.stream().filter(p -> p.getTrustedPacketSequenceId() == id).collect(Collectors.toList());
    }

    static boolean dropMarked(TracePacket p) {
        return p.hasPreviousPacketDropped() && p.getPreviousPacketDropped() != 0;
    }

    /** The packet as the producer wrote it: without the fields the buffer adds when reading out. */
    static TracePacket withoutServiceFields(TracePacket p) {
        return p.toBuilder().clearTrustedUid().clearTrustedPacketSequenceId().clearTrustedPid()
                .clearFirstPacketOnSequence().clearPreviousPacketDropped().build();
    }

    static TraceStats.BufferStats stats(TraceBuffer buffer) {
        return buffer.counters().toProto(buffer.capacity());
    }
}
