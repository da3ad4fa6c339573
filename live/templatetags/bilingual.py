"""`{% bilingual %}…{% endbilingual %}`: the words inside in each language of the shared screen
(live/bilingual.py says when there is more than one)."""

from __future__ import annotations

from django import template
from django.template.base import Node, NodeList, Parser, Token
from django.template.context import Context
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from live.bilingual import in_each_language, languages_shown

register = template.Library()


class BilingualNode(Node):
    def __init__(self, nodelist: NodeList) -> None:
        self.nodelist = nodelist

    def render(self, context: Context) -> SafeString:
        said = in_each_language(lambda: self.nodelist.render(context))
        also = [format_html('<span class="also-said" lang="{}">{}</span>', language, mark_safe(words))
                for language, words in zip(languages_shown()[1:], said[1:], strict=True)]
        return mark_safe(" ".join([said[0], *also]))


@register.tag
def bilingual(parser: Parser, token: Token) -> BilingualNode:
    nodelist = parser.parse(("endbilingual",))
    parser.delete_first_token()
    return BilingualNode(nodelist)
