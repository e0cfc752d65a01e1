# begin and its form with an order number
-l 'begin*'
