package io.jtrace.agent.trackevent;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class CategoryFilterTest {
    @Test
    void noListsEnableEverything() {
        assertTrue(new CategoryFilter(List.of(), List.of()).isEnabled("anything"));
    }

    @Test
    void aDisabledByDefaultCategoryIsEnabledOnlyByItsExactName() {
        String slow = "disabled-by-default-gpu.debug";
        assertFalse(new CategoryFilter(List.of(), List.of()).isEnabled(slow), "no lists");
        assertFalse(new CategoryFilter(List.of("*"), List.of()).isEnabled(slow), "a pattern matching every name");
        assertFalse(new CategoryFilter(List.of("disabled-by-default-*"), List.of()).isEnabled(slow), "a pattern of the prefix");
        assertTrue(new CategoryFilter(List.of(slow), List.of("*")).isEnabled(slow), "its exact name");
    }

    @Test
    void enabledGlobsSelectAndEverythingElseIsOff() {
        CategoryFilter f = new CategoryFilter(List.of("db*", "app"), List.of());
        assertTrue(f.isEnabled("db"));
        assertTrue(f.isEnabled("db.query"));
        assertTrue(f.isEnabled("app"));
        assertFalse(f.isEnabled("apps"));
        assertFalse(f.isEnabled("net"));
    }

    @Test
    void disabledOnlyTurnsOffMatchesAndLeavesTheRestOn() {
        CategoryFilter f = new CategoryFilter(List.of(), List.of("debug.*"));
        assertFalse(f.isEnabled("debug.verbose"));
        assertTrue(f.isEnabled("app"));
    }

    @Test
    void exactNamesBeatPatterns() {
        CategoryFilter f = new CategoryFilter(List.of("*", "net.keep"), List.of("net.*", "app"));
        assertTrue(f.isEnabled("net.keep"), "exact enabled beats disabled pattern");
        assertFalse(f.isEnabled("app"), "exact disabled beats enabled pattern");
        assertTrue(f.isEnabled("other"));
    }

    @Test
    void questionMarkMatchesOneCharacterAndRegexCharactersAreLiteral() {
        CategoryFilter f = new CategoryFilter(List.of("a?c", "x.y"), List.of());
        assertTrue(f.isEnabled("abc"));
        assertFalse(f.isEnabled("abbc"));
        assertTrue(f.isEnabled("x.y"));
        assertFalse(f.isEnabled("xzy"));
    }
}
