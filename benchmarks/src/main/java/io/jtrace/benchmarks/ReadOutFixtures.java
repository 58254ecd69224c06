package io.jtrace.benchmarks;

import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.service.buffer.SequenceIdentity;

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

    /** The matching end: no name, no category, the track from the sequence's defaults. */
    static byte[] sliceEnd() {
        return TracePacket.newBuilder().setTimestamp(90).setSequenceFlags(2)
                .setTrackEvent(TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_END))
                .build().toByteArray();
    }
}
