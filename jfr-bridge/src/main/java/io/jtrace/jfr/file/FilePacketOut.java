package io.jtrace.jfr.file;

import io.jtrace.jfr.format.PacketOut;
import io.jtrace.protos.TracePacket;
import io.jtrace.service.buffer.Varints;
import io.jtrace.service.output.TraceFileWriter;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.proto.SpaceProvider;
import io.jtrace.shm.proto.WireFormat;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One sequence of a trace file being written without a tracing service: each packet is built in a heap
 * buffer and appended to the file with {@code trusted_packet_sequence_id} (what the service would add)
 * as its trailer. Events are capped in size (see the annotations' caps), so a packet that still does
 * not fit is an anomaly: it is abandoned with a {@link PacketTooLargeException}.
 */
final class FilePacketOut implements PacketOut, SpaceProvider {
    static final int MAX_PACKET_BYTES = 4 * 1024 * 1024;

    private final TraceFileWriter file;
    private final ByteBuffer buffer;
    private final ProtoWriter proto = new ProtoWriter(this);
    private final byte[] trailer = new byte[16];
    private final int trailerLength;

    /** A packet buffer that every sequence of one conversion shares: they write one packet at a time. */
    static ByteBuffer newPacketBuffer() {
        return ByteBuffer.allocate(MAX_PACKET_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    }

    FilePacketOut(TraceFileWriter file, int sequenceId, ByteBuffer sharedBuffer) {
        this.file = file;
        this.buffer = sharedBuffer;
        trailer[0] = (byte) ((TracePacket.TRUSTED_PACKET_SEQUENCE_ID_FIELD_NUMBER << 3) | WireFormat.VARINT);
        this.trailerLength = Varints.put(trailer, 1, sequenceId);
    }

    @Override
    public ProtoWriter beginPacket() {
        proto.reset(buffer, 0, MAX_PACKET_BYTES);
        proto.beginFrame();
        return proto;
    }

    @Override
    public void endPacket() {
        int end = proto.position();
        proto.endNested();
        int bodyStart = WireFormat.RESERVED_SIZE_BYTES;
        file.packet(buffer.array(), bodyStart, end - bodyStart, trailer, trailerLength);
    }

    /** Drops the open packet, if any (after a failure half-way through it): the next beginPacket starts afresh. */
    void abandon() {
        proto.reset(buffer, 0, MAX_PACKET_BYTES);
    }

    @Override
    public void makeRoom(ProtoWriter writer, int needed) {
        throw new PacketTooLargeException(MAX_PACKET_BYTES);
    }

    @Override
    public void patchSize(ProtoWriter writer, int level, int size) {
        throw new IllegalStateException("a file packet never spans fragments");
    }
}
