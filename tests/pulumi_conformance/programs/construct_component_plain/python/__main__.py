"""One remote component asked for five children with a plain number."""

from component import Component

Component("component", children=5)
