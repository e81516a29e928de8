"""The rendering layer: what sits below both the strategies and the compiler, so neither imports the other.

- :mod:`.selection`: the budget, entries and selection a strategy returns;
- :mod:`.options`: the compile's roles, options and injections;
- :mod:`.repairs`: the passes that make rendered messages provider-valid (tool pairing, empty messages,
  thinking, alternation) and the excerpts of long text;
- :mod:`.reduce`: reductions priced before selection (tool-result caps, image placeholders);
- :mod:`.fit`: rendering a selection into messages and cutting it to fit;
- :mod:`.transcript`: the running tool loop's transcript cut line by line (calls kept longest);
- :mod:`.cache_markers`: where prompt-cache breakpoints go.

Importing the package imports none of them (each is imported where it is used).
"""
