package io.jtrace.agent.tracks;

import io.jtrace.protos.CounterDescriptor;
import java.util.HashMap;
import java.util.Map;

/**
 * Named counter tracks under the process (the JVM sources' own: their uuids never meet those of the
 * application's counters of the same name), written through a {@link PolledSequence}: each described
 * once per epoch of the sequence, and a value written only when it differs from the last one written (a counter holds its
 * value until the next sample in Perfetto's UI, so repeating it adds bytes and nothing else).
 */
public final class CounterSet {
    private final PolledSequence sequence;
    private final Map<String, Counter> counters = new HashMap<>();

    public CounterSet(PolledSequence sequence) {
        this.sequence = sequence;
    }

    public void set(String name, CounterDescriptor.Unit unit, long timestamp, long value) {
        Counter c = counter(name, unit);
        if ((!c.written || c.isDouble || c.longValue != value) && sequence.counter(c.uuid, timestamp, value)) {
            // Remembered only once written: a sample lost to a full SMB is written again next time.
            c.written = true;
            c.isDouble = false;
            c.longValue = value;
        }
    }

    public void set(String name, CounterDescriptor.Unit unit, long timestamp, double value) {
        Counter c = counter(name, unit);
        if ((!c.written || !c.isDouble || Double.compare(c.doubleValue, value) != 0)
                && sequence.counter(c.uuid, timestamp, value)) {
            c.written = true;
            c.isDouble = true;
            c.doubleValue = value;
        }
    }

    private Counter counter(String name, CounterDescriptor.Unit unit) {
        Counter c = counters.computeIfAbsent(name, n -> new Counter(sequence.process().namedUuid("jvm-counter:" + n)));
        if (sequence.needsDescribing(c.describedEpoch)) {
            sequence.describeCounter(c.uuid, sequence.process().uuid(), name, unit);
            c.describedEpoch = sequence.epoch();
            c.written = false; // a new epoch: what was written before may be gone with the old one
        }
        return c;
    }

    private static final class Counter {
        final long uuid;
        int describedEpoch = -1;
        boolean written;
        boolean isDouble;
        long longValue;
        double doubleValue;

        Counter(long uuid) {
            this.uuid = uuid;
        }
    }
}
