package io.jtrace.service.clock;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.TraceConfig;
import org.junit.jupiter.api.Test;

class ClockSnapshotScheduleTest {
    private static final long MS = 1_000_000L;

    @Test
    void theFirstReadTakesOneThenOnlyEveryTenSecondsByDefault() {
        ClockSnapshotSchedule schedule = new ClockSnapshotSchedule(TraceConfig.getDefaultInstance());
        long start = 5_000 * MS;
        assertTrue(schedule.due(start, false), "none taken yet");
        schedule.taken(start);
        assertFalse(schedule.due(start + 1, false));
        assertFalse(schedule.due(start + 9_999 * MS, false));
        assertTrue(schedule.due(start + 10_000 * MS, false));
    }

    @Test
    void theLastReadAlwaysTakesOne() {
        ClockSnapshotSchedule schedule = new ClockSnapshotSchedule(TraceConfig.getDefaultInstance());
        schedule.taken(0);
        assertTrue(schedule.due(1, true));
    }

    @Test
    void snapshotIntervalMsSetsTheInterval() {
        ClockSnapshotSchedule schedule = new ClockSnapshotSchedule(TraceConfig.newBuilder()
                .setBuiltinDataSources(TraceConfig.BuiltinDataSource.newBuilder().setSnapshotIntervalMs(250))
                .build());
        schedule.taken(-100 * MS);
        assertFalse(schedule.due(149 * MS, false));
        assertTrue(schedule.due(150 * MS, false), "250 ms after the last, across zero");
    }

    @Test
    void anIntervalOf2To31MsOrMoreIsHonouredAsTheUint32ItIsNotReplacedByTheDefault() {
        // 0x80000000 ms, about 24.9 days: read signed it would be negative and fall back to 10 s.
        ClockSnapshotSchedule schedule = new ClockSnapshotSchedule(TraceConfig.newBuilder()
                .setBuiltinDataSources(TraceConfig.BuiltinDataSource.newBuilder().setSnapshotIntervalMs(0x80000000))
                .build());
        schedule.taken(0);
        assertFalse(schedule.due(10_000 * MS, false), "not the 10 s default");
        assertFalse(schedule.due((0x80000000L - 1) * MS, false));
        assertTrue(schedule.due(0x80000000L * MS, false));
    }
}
