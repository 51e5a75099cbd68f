"""The shared model: what a window reads (views) and what a briefing holds (papers, checks).

It sits below every stage that uses it (judge, verify, briefing, publish) and imports none of them,
so imports run one way: model -> judge -> verify -> briefing -> publish.
"""
