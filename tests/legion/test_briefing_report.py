"""The briefing picture's own numbers: success per week and preference signals, checked by hand."""

from __future__ import annotations

from datetime import date

from mneme_tui.legion.markdown.legion_records import OutcomeRecord, PreferenceRecord
from mneme_tui.legion.skill.briefing_report import WeekSuccess, signal_counts, weekly_success

TODAY = date(2026, 3, 4)  # a Wednesday: the current week starts on Monday 2026-03-02


def outcome(day: str, result: str) -> OutcomeRecord:
    return OutcomeRecord(id="O-1", date=day, outcome=result)


def test_weekly_success_counts_each_week_and_its_successes():
    weeks = weekly_success(
        [
            outcome("2026-03-02", "success"),
            outcome("2026-03-04", " Success "),
            outcome("2026-03-03", "failed"),
            outcome("2026-02-23", "partial"),
            outcome("2026-03-05", "success"),  # tomorrow: left out
            outcome("2025-12-07", "success"),  # before the first of the 3 weeks: left out
            outcome("not a date", "success"),
        ],
        TODAY,
        weeks=3,
    )
    assert weeks == [
        WeekSuccess(date(2026, 2, 16), 0, None),
        WeekSuccess(date(2026, 2, 23), 1, 0.0),
        WeekSuccess(date(2026, 3, 2), 3, 2 / 3),
    ]


def test_signal_counts_in_all_and_per_agent():
    def pref(signal: str, agent: str) -> PreferenceRecord:
        return PreferenceRecord(id="PRF-1", signal=signal, agent=agent)

    totals, agents = signal_counts(
        [
            pref("positive", "ana"),
            pref("Negative", "ana"),
            pref("odd", "ana"),
            pref("corrective", "bo"),
            pref("positive", "bo"),
            pref("positive", "bo"),
            pref("negative", ""),
            pref("positive", "cy"),
        ],
        top=3,
    )
    assert totals == {"positive": 4, "corrective": 1, "negative": 2}
    assert [(a.agent, a.positive, a.corrective, a.negative, a.total) for a in agents] == [
        ("ana", 1, 0, 1, 3),
        ("bo", 2, 1, 0, 3),
        ("cy", 1, 0, 0, 1),
    ]


def test_report_orders_recent_outcomes_by_date_and_trims_empty_leading_weeks():
    from mneme_tui.legion.skill.briefing_report import BriefingReport
    from mneme_tui.legion.skill.session_briefing import Briefing

    recent = [
        OutcomeRecord(id="O-2", date="2026-02-14"),
        OutcomeRecord(id="O-9", date="2026-02-27"),
        OutcomeRecord(id="O-3", date="not a date"),
        OutcomeRecord(id="O-8", date="2026-02-27"),
    ]
    weeks = weekly_success([outcome("2026-02-23", "success"), outcome("2026-03-02", "failed")], TODAY, weeks=6)
    report = BriefingReport(briefing=Briefing(recent_outcomes=recent), weekly_success=weeks)
    assert [r.id for r in report.recent_outcomes_by_date] == ["O-9", "O-8", "O-2", "O-3"]
    assert [r.id for r in report.briefing.recent_outcomes] == ["O-2", "O-9", "O-3", "O-8"]  # spec order kept
    assert [w.start for w in report.weeks_with_data] == [date(2026, 2, 23), date(2026, 3, 2)]
    assert BriefingReport(briefing=Briefing(), weekly_success=weekly_success([], TODAY, 3)).weeks_with_data == []
